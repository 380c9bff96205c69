// Datablocks: both parent forms, field inheritance, ids from 3, name namespace.
datablock SimDataBlock(BaseData)
{
   speed = 10;
   color = "red";
};
datablock SimDataBlock(FastData) : BaseData
{
   speed = 20;
};
datablock SimDataBlock(BlueData : FastData)
{
   color = "blue";
};
echo(BaseData.getId(), " ", FastData.getId(), " ", BlueData.getId());
echo(FastData.speed SPC FastData.color);
echo(BlueData.speed SPC BlueData.color);
function BaseData::kind(%this) { return "base data"; }
function SimDataBlock::kind(%this) { return "any data"; }
echo(BaseData.kind(), " / ", FastData.kind());
echo(BaseData.getGroup().getName());
datablock SimDataBlock(BaseData) { speed = 11; };
echo(BaseData.getId(), " ", BaseData.speed);
datablock NotADatablockClass(Bad) { x = 1; };
echo(isObject(Bad));
